// Which of Redis Cluster's 16384 hash slots a key lives in: CRC16 (XMODEM) of its hash tag, or
// of the whole key when it has none, modulo 16384, as the cluster specification defines it.
#pragma once

#include <QByteArrayView>

namespace reclaim {

inline constexpr int kClusterSlotCount = 16384;

// The part of the key that is hashed: the text between the first '{' and the first '}' after
// it when that is not empty, else the whole key ("{bull}:q:1" hashes "bull"; "a{}{b}" hashes
// all of "a{}{b}"). Two keys share a slot whenever they share a non-empty tag.
QByteArrayView clusterHashTag(QByteArrayView key);

int clusterKeySlot(QByteArrayView key);

} // namespace reclaim
