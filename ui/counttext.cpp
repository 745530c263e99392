#include "counttext.h"

#include <QLocale>

namespace reclaim::ui {

QString countText(qint64 n)
{
    QLocale locale;
    locale.setNumberOptions(locale.numberOptions() & ~QLocale::OmitGroupSeparator);
    return locale.toString(n);
}

} // namespace reclaim::ui
