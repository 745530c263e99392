// A value-or-error result: "could not look" must never collapse into an empty value.
#pragma once

#include <utility>
#include <variant>

namespace reclaim {

template <typename E> struct Unexpected
{
    E error;
};

template <typename E> Unexpected<std::decay_t<E>> unexpected(E &&e)
{
    return {std::forward<E>(e)};
}

// Deliberately small: C++20 has no std::expected and GCC 12's is C++23-only.
template <typename T, typename E> class Expected
{
public:
    Expected(const T &value) : m_v(std::in_place_index<0>, value) {}
    Expected(T &&value) : m_v(std::in_place_index<0>, std::move(value)) {}
    template <typename G>
    Expected(Unexpected<G> u) : m_v(std::in_place_index<1>, std::move(u.error))
    {}

    [[nodiscard]] bool hasValue() const { return m_v.index() == 0; }
    explicit operator bool() const { return hasValue(); }

    T &value() & { return std::get<0>(m_v); }
    const T &value() const & { return std::get<0>(m_v); }
    T &&value() && { return std::get<0>(std::move(m_v)); }
    T *operator->() { return &std::get<0>(m_v); }
    const T *operator->() const { return &std::get<0>(m_v); }
    T &operator*() & { return std::get<0>(m_v); }
    const T &operator*() const & { return std::get<0>(m_v); }

    const E &error() const { return std::get<1>(m_v); }

private:
    std::variant<T, E> m_v;
};

} // namespace reclaim
