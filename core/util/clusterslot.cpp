#include "util/clusterslot.h"

#include <array>
#include <cstdint>

namespace reclaim {

namespace {

// CRC16-CCITT in its XMODEM form (polynomial 0x1021, initial value 0, no reflection), the one
// the cluster specification names: "123456789" gives 0x31C3.
constexpr std::array<std::uint16_t, 256> makeTable()
{
    std::array<std::uint16_t, 256> table{};
    for (unsigned i = 0; i < 256; ++i) {
        auto crc = static_cast<std::uint16_t>(i << 8);
        for (int bit = 0; bit < 8; ++bit)
            crc = static_cast<std::uint16_t>((crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1);
        table.at(i) = crc;
    }
    return table;
}

constexpr std::array<std::uint16_t, 256> kCrcTable = makeTable();

std::uint16_t crc16(QByteArrayView bytes)
{
    std::uint16_t crc = 0;
    for (const char c : bytes)
        crc = static_cast<std::uint16_t>(
            (crc << 8) ^ kCrcTable.at(((crc >> 8) ^ static_cast<std::uint8_t>(c)) & 0xff));
    return crc;
}

} // namespace

QByteArrayView clusterHashTag(QByteArrayView key)
{
    const qsizetype open = key.indexOf('{');
    if (open < 0)
        return key;
    const qsizetype close = key.sliced(open + 1).indexOf('}');
    if (close <= 0) // no '}' after the '{', or "{}": the whole key is hashed
        return key;
    return key.sliced(open + 1, close);
}

int clusterKeySlot(QByteArrayView key)
{
    return crc16(clusterHashTag(key)) & (kClusterSlotCount - 1);
}

} // namespace reclaim
