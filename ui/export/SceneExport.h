#pragma once
// Export of what the graph view shows, one code path for the app and the command line: PNG,
// SVG and PDF render the same scene the window draws; DOT, JSON and the text come from core.

#include <QRectF>
#include <QString>
#include <string>

namespace fxview {

class GraphScene;

enum class ExportFormat { Png, Svg, Pdf, Dot, Json, Text };

// From a format name or a file's extension ("png", "graph.svg"); false if unknown.
bool exportFormatFor(const QString& nameOrPath, ExportFormat& format);

struct ExportOptions {
    ExportFormat format = ExportFormat::Svg;
    double scale = 2.0;             // PNG: pixels per scene point
    bool transparent = false;       // PNG/SVG: no background
    QRectF area;                    // the part of the scene to export; empty for all of it
    qint64 maxPixels = 200'000'000; // a PNG larger than this is refused, not written broken
};

struct ExportSource {
    GraphScene* scene = nullptr;
    std::string dot;  // Graphviz source, for DOT
    std::string json; // fxview.graph JSON, for JSON
    std::string text; // the graph as text (torch.fx's print(graph)), for .txt
};

// Writes `path`; returns "" or one sentence saying what went wrong and what to do.
QString exportGraph(const QString& path, const ExportOptions& options, const ExportSource& source);

} // namespace fxview
