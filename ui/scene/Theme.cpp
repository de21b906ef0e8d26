#include "scene/Theme.h"

namespace fxview {

Theme Theme::light() {
    Theme t;
    t.name = "light";
    t.background = QColor("#ffffff");
    t.text = QColor("#1f2328");
    t.mutedText = QColor("#57606a");
    t.edge = QColor("#6e7781");
    t.border = QColor("#8c959f");
    t.clusterFill = QColor(9, 105, 218, 14);
    t.clusterBorder = QColor("#b6c2cf");
    t.blockBorder = QColor("#bf8700");
    t.current = QColor("#0969da");
    t.done = QColor("#1a7f37");
    t.failed = QColor("#cf222e");
    t.notExecuted = QColor("#eaeef2");
    t.breakpoint = QColor("#cf222e");
    // placeholder, get_attr, call_module, call_function, call_method, output
    t.opColors[0] = QColor("#dafbe1");
    t.opColors[1] = QColor("#fff1c5");
    t.opColors[2] = QColor("#ddf4ff");
    t.opColors[3] = QColor("#ffeadb");
    t.opColors[4] = QColor("#fbefff");
    t.opColors[5] = QColor("#eaeef2");
    return t;
}

Theme Theme::dark() {
    Theme t;
    t.name = "dark";
    t.background = QColor("#0d1117");
    t.text = QColor("#e6edf3");
    t.mutedText = QColor("#8d96a0");
    t.edge = QColor("#8d96a0");
    t.border = QColor("#6e7681");
    t.clusterFill = QColor(56, 139, 253, 18);
    t.clusterBorder = QColor("#30363d");
    t.blockBorder = QColor("#d29922");
    t.current = QColor("#58a6ff");
    t.done = QColor("#3fb950");
    t.failed = QColor("#f85149");
    t.notExecuted = QColor("#161b22");
    t.breakpoint = QColor("#f85149");
    t.opColors[0] = QColor("#12361f");
    t.opColors[1] = QColor("#3b2e0a");
    t.opColors[2] = QColor("#0c2d4d");
    t.opColors[3] = QColor("#3d1f0e");
    t.opColors[4] = QColor("#2e1a40");
    t.opColors[5] = QColor("#21262d");
    return t;
}

QColor tint(const QColor& color, const QColor& under, double amount) {
    auto mix = [amount](int a, int b) { return static_cast<int>(a * amount + b * (1 - amount)); };
    return QColor(mix(color.red(), under.red()), mix(color.green(), under.green()),
                  mix(color.blue(), under.blue()));
}

bool Theme::byName(const QString& name, Theme& theme) {
    if (name == "light")
        theme = light();
    else if (name == "dark")
        theme = dark();
    else
        return false;
    return true;
}

} // namespace fxview
