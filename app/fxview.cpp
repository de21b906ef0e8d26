// fxview: the desktop app. `fxview [MODEL] [--input SPEC]...` opens MODEL (default: the
// built-in TinyNet example) with the given sample input (default: guessed from the graph).

#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>

#include "InputSpec.h"
#include "MainWindow.h"
#include "OpenTime.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("fxview");
    QApplication::setOrganizationName("fxview");
    QApplication::setApplicationVersion("0.1.0");

    QCommandLineParser parser;
    parser.setApplicationDescription("See a PyTorch model's graph the way torch.fx sees it and "
                                     "step through it on sample input.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("MODEL", "a TorchScript archive (.pt/.pth/.zip) or example:NAME "
                                          "(tinynet, branchy, smallcnn); default example:tinynet");
    QCommandLineOption input("input",
                             "sample input for a placeholder: 3x4, 1x3x224x224, "
                             "2x8:int64 or file:input.pt; once per placeholder",
                             "SPEC");
    parser.addOption(input);
    QCommandLineOption reportOpenTime(
        "report-open-time", "print the time from process start to the graph painted, then quit");
    parser.addOption(reportOpenTime);
    parser.process(app);

    std::vector<fxview::InputSpec> inputs;
    for (const QString& text : parser.values(input)) {
        fxview::InputSpec spec;
        std::string error;
        if (!fxview::parseInputSpec(text.toStdString(), spec, error)) {
            std::fprintf(stderr, "fxview: %s\n", error.c_str());
            return 2;
        }
        inputs.push_back(spec);
    }
    QString model = parser.positionalArguments().value(0, "example:tinynet");

    fxview::MainWindow window;
    window.show();
    if (parser.isSet(reportOpenTime))
        fxview::reportOpenTime(window);
    window.openModel(model, inputs);
    return QApplication::exec();
}
