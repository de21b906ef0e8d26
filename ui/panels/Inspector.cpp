#include "panels/Inspector.h"

#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QUrl>
#include <algorithm>

#include "CostTable.h"
#include "FxText.h"
#include "SourceLocation.h"

namespace fxview {

namespace {

QString html(const std::string& text) {
    return QString::fromStdString(text).toHtmlEscaped();
}

QString describeValue(const ValueSummary& v) {
    if (v.type != "Tensor")
        return html(shortDescription(v));
    QString text = QString("%1 %2 on %3<br>stride %4, %5 elements, %6 bytes")
                       .arg(html(formatShape(v.shape)), html(v.dtype), html(v.device),
                            html(formatShape(v.stride)))
                       .arg(v.numel)
                       .arg(v.bytes);
    if (!v.qscheme.empty()) // its statistics below are of the values it stands for
        text += "<br>" + html(quantizationDescription(v)) + "<br>dequantized:";
    if (v.hasStats)
        text += QString("<br>min %1, max %2<br>mean %3, std %4")
                    .arg(v.min, 0, 'g', 6)
                    .arg(v.max, 0, 'g', 6)
                    .arg(v.mean, 0, 'g', 6)
                    .arg(v.hasDetail ? QString::number(v.std, 'g', 6) : QString("…"));
    // Counted whenever the statistics were (floats): "NaN 0" is an answer, not a blank.
    if (v.hasStats || v.nanCount || v.infCount) {
        QString counts = QString("NaN %1, Inf %2").arg(v.nanCount).arg(v.infCount);
        text += "<br>" + (v.nanCount || v.infCount ? "<b>" + counts + "</b>" : counts);
    }
    return text;
}

// `generate_fixtures.py:114 in forward`, the full path as its tooltip.
QString place(const SourceLocation& frame) {
    QString file = QString::fromStdString(frame.file);
    QString text = QString("<span title=\"%1\">%2:%3</span>")
                       .arg(file.toHtmlEscaped(), QFileInfo(file).fileName().toHtmlEscaped(),
                            QString::number(frame.line));
    return frame.function.empty() ? text : text + " in " + html(frame.function);
}

// The line of the model's code itself, across the whole inspector (a narrow value column would
// break it into what looks like several lines of code), in a fixed-pitch font on a shaded
// block; a line too long for the panel wraps with its continuation indented, as an editor's.
QString codeRow(const std::string& text, const QColor& shade) {
    return QString("<tr><td colspan=\"2\" bgcolor=\"%1\" style=\"padding: 3px 6px;\">"
                   "<p style=\"margin-left: 18px; text-indent: -18px; font-family: 'DejaVu Sans "
                   "Mono', monospace;\">%2</p></td></tr>")
        .arg(shade.name(), html(text));
}

const QUrl kHistogramUrl("fxview://histogram");

} // namespace

Inspector::Inspector(QWidget* parent) : QTextBrowser(parent) {
    setOpenLinks(false);
    setMinimumWidth(260); // room for a value next to its key
    connect(this, &QTextBrowser::anchorClicked, this,
            [this](const QUrl& url) { emit nodeLinkClicked(url.fragment()); });
}

QImage Inspector::histogramImage(const std::vector<std::int64_t>& bins, const QColor& color,
                                 const QSize& size) {
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    std::int64_t fullest = bins.empty() ? 0 : *std::max_element(bins.begin(), bins.end());
    if (fullest == 0)
        return image;
    QPainter painter(&image);
    double width = static_cast<double>(size.width()) / static_cast<double>(bins.size());
    for (std::size_t i = 0; i < bins.size(); ++i) {
        double height = static_cast<double>(bins[i]) / static_cast<double>(fullest) * size.height();
        painter.fillRect(QRectF(static_cast<double>(i) * width, size.height() - height,
                                std::max(1.0, width - 1), height),
                         color);
    }
    return image;
}

void Inspector::showNode(const Node& n, const NodeRecord* record, const QColor& barColor,
                         const QString& detailNote) {
    auto link = [](const std::string& node) {
        return QString("<a href=\"#%1\">%1</a>").arg(html(node));
    };
    auto argText = [&](const Argument& a) {
        QString text = html(formatArgument(a));
        a.forEachNodeRef([&](const std::string& ref) { text.replace("%" + html(ref), link(ref)); });
        return text;
    };
    QString body = QString("<h3>%1</h3><table>").arg(html(n.name));
    auto row = [&](const QString& key, const QString& value) {
        body += QString("<tr><td valign=\"top\" width=\"84\"><b>%1</b>&nbsp;</td><td>%2</td></tr>")
                    .arg(key, value);
    };
    row("op", opName(n.op));
    row("target", html(n.target));
    if (!n.moduleType.empty())
        row("module", html(n.moduleType));
    if (!n.tensors.empty()) {
        QStringList held;
        for (const HeldTensor& t : n.tensors)
            held << html(t.name) + " " + html(formatShape(t.shape)) + " " + html(t.dtype);
        // A .pt2's weight placeholder says what it is: parameter fc1.weight [8, 4] float32.
        QString label = n.op == Op::GetAttr       ? "tensor"
                        : n.op == Op::Placeholder ? placeholderKindName(n.placeholderKind)
                                                  : "parameters";
        row(label, held.join("<br>"));
    }
    if (!n.symbolicShape.empty()) {
        // A dynamic dimension as the program has it (s77, 2*s77), and what it is in this run.
        QStringList dims, values;
        const bool ran =
            record && record->runs > 0 && record->value.shape.size() == n.symbolicShape.size();
        for (std::size_t d = 0; d < n.symbolicShape.size(); ++d) {
            const std::string& size = n.symbolicShape[d];
            dims << html(size);
            if (ran && size.find_first_not_of("0123456789") != std::string::npos)
                values << html(size) + " = " + QString::number(record->value.shape[d]);
        }
        values.removeDuplicates();
        row("shape",
            "[" + dims.join(", ") + "]" +
                (values.isEmpty() ? QString() : "<br>" + values.join(", ") + " in this run"));
    }
    if (!n.scope.empty())
        row("scope",
            html(n.scope) + (n.scopeType.empty() ? QString() : " (" + html(n.scopeType) + ")"));
    if (!n.outputRoles.empty() && !n.args.empty()) {
        // What each returned value is: the user's, or a buffer's new value written back.
        QStringList roles;
        const std::vector<Argument>& items = n.args[0].items;
        for (std::size_t i = 0; i < n.outputRoles.size() && i < items.size(); ++i) {
            const OutputRole& role = n.outputRoles[i];
            QString what = role.kind == "user_output" ? QString("user output")
                           : role.kind == "buffer_mutation"
                               ? "new value of buffer " + html(role.target)
                               : html(role.kind + " " + role.target);
            roles << html(formatArgument(items[i])) + ": " + what;
        }
        row("returns", roles.join("<br>"));
    }
    // Where the model's code made it, as a debugger shows a frame: file and line, the line's
    // text, then the model's own calls that led there, innermost first.
    if (std::vector<SourceLocation> frames = modelFrames(n.sourceTrace); !frames.empty()) {
        row("source", place(frames.front()));
        if (!frames.front().text.empty())
            body += codeRow(frames.front().text, palette().color(QPalette::AlternateBase));
        QStringList callers;
        for (std::size_t i = 1; i < frames.size(); ++i)
            callers << place(frames[i]);
        if (!callers.isEmpty())
            row("called from", callers.join("<br>"));
    }
    QStringList args;
    for (const Argument& a : n.args)
        args << argText(a);
    row("args", "(" + args.join(", ") + ")");
    QStringList kwargs;
    for (const KeywordArgument& k : n.kwargs)
        kwargs << html(k.name) + ": " + argText(k.value);
    row("kwargs", "{" + kwargs.join(", ") + "}");
    QStringList users;
    for (const std::string& u : n.users)
        users << link(u);
    row("users", users.isEmpty() ? QString("none") : users.join(", "));
    if (record) {
        const NodeRecord& r = *record;
        const char* states[] = {"not run yet", "ran", "failed", "not executed (branch not taken)"};
        row("state", states[static_cast<int>(r.state)]);
        if (r.runs > 0) {
            row("value", describeValue(r.value));
            const ValueSummary& v = r.value;
            if (!v.histogram.empty() && v.histogramSample > 0) {
                document()->addResource(QTextDocument::ImageResource, kHistogramUrl,
                                        histogramImage(v.histogram, barColor, QSize(168, 44)));
                QString sampled = v.histogramSample < v.numel
                                      ? QString("%1 of %2 values, in 64 evenly spaced runs")
                                            .arg(v.histogramSample)
                                            .arg(v.numel)
                                      : QString("all %1 values").arg(v.histogramSample);
                row("histogram", QString("<img src=\"%1\"><br><small>%2 to %3; %4</small>")
                                     .arg(kHistogramUrl.toString())
                                     .arg(v.min, 0, 'g', 4)
                                     .arg(v.max, 0, 'g', 4)
                                     .arg(sampled));
            } else if (v.hasStats && !v.hasDetail) {
                row("histogram", "<small>" +
                                     (detailNote.isEmpty() ? QString("being made…")
                                                           : detailNote.toHtmlEscaped()) +
                                     "</small>");
            }
            if (r.timeUs > 0) { // an executed path's nodes carry values, not times
                row("time", r.timeUs >= 1000 ? QString("%1 ms").arg(r.timeUs / 1000, 0, 'f', 2)
                                             : QString("%1 µs").arg(r.timeUs, 0, 'f', 1));
                // What it cost (docs/cost.md): new storage or what it aliases, the live set
                // after it, its FLOPs.
                row("memory", r.aliasKind.empty()
                                  ? QString::fromStdString(formatBytes(r.newBytes)) + " new"
                                  : QString::fromStdString(r.aliasKind) + " (no new storage)");
                row("live set", QString::fromStdString(formatBytes(r.liveBytes)) +
                                    " <small>held for later nodes once it ran</small>");
                if (r.flops > 0)
                    row("FLOPs", QString::fromStdString(formatFlops(r.flops)));
            }
        }
        if (r.runs > 1)
            row("runs", QString::number(r.runs));
        if (!r.warning.empty())
            row("warning", html(r.warning));
        if (!r.error.empty())
            row("error", html(r.error));
    }
    setHtml(body + "</table>");
}

} // namespace fxview
