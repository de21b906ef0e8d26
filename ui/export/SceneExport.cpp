#include "export/SceneExport.h"

#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <cmath>

#include "export/SvgPainter.h"
#include "scene/GraphScene.h"

namespace fxview {

namespace {

QString cannotWrite(const QString& path) {
    return "Cannot write '" + path + "': check that its folder exists and is writable.";
}

// Renders the scene's `area` into a painter over `target`, with or without the background.
void render(GraphScene& scene, QPainter& painter, const QRectF& target, const QRectF& area,
            bool transparent) {
    QBrush background = scene.backgroundBrush();
    if (transparent)
        scene.setBackgroundBrush(Qt::NoBrush);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    scene.render(&painter, target, area);
    if (transparent)
        scene.setBackgroundBrush(background);
}

QString writePng(GraphScene& scene, const QString& path, const ExportOptions& o,
                 const QRectF& area) {
    auto width = static_cast<qint64>(std::ceil(area.width() * o.scale));
    auto height = static_cast<qint64>(std::ceil(area.height() * o.scale));
    if (width * height > o.maxPixels || width > 32767 || height > 32767)
        return QString("A PNG of this graph at scale %1 would be %2 x %3 pixels, over the limit; "
                       "export it as SVG or PDF, or choose a smaller scale.")
            .arg(o.scale)
            .arg(width)
            .arg(height);
    QImage image(static_cast<int>(width), static_cast<int>(height),
                 QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    {
        QPainter painter(&image);
        render(scene, painter, QRectF(0, 0, width, height), area, o.transparent);
    }
    return image.save(path, "PNG") ? QString() : cannotWrite(path);
}

QString writeSvg(GraphScene& scene, const QString& path, const ExportOptions& o,
                 const QRectF& area) {
    SvgPainter svg(path, area.size(), "fxview graph");
    QPainter painter;
    if (!painter.begin(&svg))
        return cannotWrite(path);
    render(scene, painter, QRectF(QPointF(0, 0), area.size()), area, o.transparent);
    painter.end();
    return svg.ok() ? QString() : cannotWrite(path);
}

QString writePdf(GraphScene& scene, const QString& path, const QRectF& area) {
    // Laid out at the resolution the boxes were measured at, so text fills them as on screen;
    // the page is the graph's size at that resolution.
    const int dpi = measuringDpi();
    QPdfWriter pdf(path);
    pdf.setResolution(dpi);
    pdf.setPageSize(
        QPageSize(area.size() * 72.0 / dpi, QPageSize::Point, "graph", QPageSize::ExactMatch));
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
    pdf.setCreator("fxview");
    QPainter painter;
    if (!painter.begin(&pdf))
        return cannotWrite(path);
    render(scene, painter, QRectF(QPointF(0, 0), area.size()), area, false);
    painter.end();
    return QFileInfo(path).size() > 0 ? QString() : cannotWrite(path);
}

QString writeText(const QString& path, const std::string& text) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) ||
        file.write(text.data(), static_cast<qint64>(text.size())) !=
            static_cast<qint64>(text.size()))
        return cannotWrite(path);
    return {};
}

} // namespace

bool exportFormatFor(const QString& nameOrPath, ExportFormat& format) {
    QString ext =
        nameOrPath.contains('.') ? QFileInfo(nameOrPath).suffix().toLower() : nameOrPath.toLower();
    if (ext == "png")
        format = ExportFormat::Png;
    else if (ext == "svg")
        format = ExportFormat::Svg;
    else if (ext == "pdf")
        format = ExportFormat::Pdf;
    else if (ext == "dot" || ext == "gv")
        format = ExportFormat::Dot;
    else if (ext == "json")
        format = ExportFormat::Json;
    else if (ext == "txt")
        format = ExportFormat::Text;
    else
        return false;
    return true;
}

QString exportGraph(const QString& path, const ExportOptions& options, const ExportSource& source) {
    if (options.format == ExportFormat::Dot)
        return writeText(path, source.dot);
    if (options.format == ExportFormat::Json)
        return writeText(path, source.json);
    if (options.format == ExportFormat::Text)
        return writeText(path, source.text);
    GraphScene& scene = *source.scene;
    QRectF area = options.area.isEmpty() ? scene.sceneRect() : options.area;
    switch (options.format) {
    case ExportFormat::Png:
        return writePng(scene, path, options, area);
    case ExportFormat::Svg:
        return writeSvg(scene, path, options, area);
    case ExportFormat::Pdf:
        return writePdf(scene, path, area);
    default:
        return {};
    }
}

} // namespace fxview
