// A RunProgress that calls a function: tests use it to act at a given phase of a run
// (change a row before the first write, freeze Redis once the lookups start, ...).
#pragma once

#include "recovery/recoveryrun.h"

#include <functional>

namespace reclaim::test {

class CallbackProgress final : public RunProgress
{
public:
    explicit CallbackProgress(std::function<void(const QString &, int, int)> f) : m_f(std::move(f))
    {}
    void phase(const QString &phase, int done, int total) override { m_f(phase, done, total); }

private:
    std::function<void(const QString &, int, int)> m_f;
};

} // namespace reclaim::test
