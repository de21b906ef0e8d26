// Layout and export time against node count: the fixture models and generated chains with skip
// connections, next to the time Graphviz's own `dot -Tsvg` takes on the same graph's DOT text.
// Prints a Markdown table for docs/measurements.md: medians of five runs, fxview's and dot's
// interleaved.
//
// Usage: bench_layout WORKDIR [MODEL.pt]...

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "ChainGraph.h"
#include "Model.h"
#include "Timing.h"
#include "Tracer.h"
#include "export/SceneExport.h"
#include "scene/GraphScene.h"

using namespace fxview;

namespace {

// Medians of kRepeats runs of each, interleaved, so that the machine's drift hits both sides.
constexpr int kRepeats = 5;

void measure(const QString& name, const Graph& graph, const QString& workdir) {
    QString dotFile = workdir + "/" + name + ".dot";
    QFile file(dotFile);
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(dotFile));
    file.write(QByteArray::fromStdString(graphToDot(graph)));
    file.close();

    std::vector<double> graphviz, layout, exported, total, dot;
    for (int i = 0; i < kRepeats; ++i) {
        graphviz.push_back(millisecondsOf([&] {
            layoutGraph(graph, [](const Node&) { return PointF{150, 50}; });
        }));
        GraphScene scene;
        QString error;
        layout.push_back(millisecondsOf([&] { error = scene.setGraph(graph); }));
        if (!error.isEmpty()) {
            std::fprintf(stderr, "%s: %s\n", qPrintable(name), qPrintable(error));
            return;
        }
        ExportOptions svg;
        svg.format = ExportFormat::Svg;
        exported.push_back(millisecondsOf([&] {
            error = exportGraph(workdir + "/" + name + ".svg", svg, {&scene, {}, {}, {}});
        }));
        total.push_back(layout.back() + exported.back());
        dot.push_back(millisecondsOf([&] {
            QProcess process;
            process.start("dot", {"-Tsvg", dotFile, "-o", workdir + "/" + name + ".dot.svg"});
            process.waitForFinished(-1);
        }));
    }
    std::printf("| %s | %d | %.0f ms | %.0f ms | %.0f ms | %.0f ms | %.0f ms | %.2f× |\n",
                qPrintable(name), graph.nodeCount(), median(graphviz), median(layout),
                median(exported), median(total), median(dot), median(total) / median(dot));
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_layout WORKDIR [MODEL.pt]...\n");
        return 2;
    }
    QString workdir = argv[1];
    // One-time costs of a running app (Graphviz's plugins, the font database) are paid before
    // timing, as they are when the app opens its first model; `dot` pays its own in every run.
    {
        GraphScene warmUp;
        warmUp.setGraph(chainWithSkips(4));
        ExportOptions svg;
        exportGraph(workdir + "/warm-up.svg", svg, {&warmUp, {}, {}, {}});
    }
    std::printf(
        "| graph | nodes | of which Graphviz | layout (measure, dot, items) | SVG export "
        "| fxview total | `dot -Tsvg` | ratio |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 2; i < argc; ++i) {
        LoadResult loaded = loadModel(argv[i]);
        if (!loaded.ok()) {
            std::fprintf(stderr, "%s\n", loaded.error.c_str());
            return 1;
        }
        QString name = QString(argv[i]).section('/', -1).section('.', 0, 0);
        measure(name, importGraph(*loaded.model).graph, workdir);
    }
    for (int count : {500, 1000, 3000})
        measure(QString("chain%1").arg(count), chainWithSkips(count), workdir);
    return 0;
}
