#pragma once
// The strip above the graph that says what the person must know now: why this graph (a note), a
// sentence naming what went wrong (an error), how the run ended (a failure, or an output check
// that could not be made), or that a stepped-into module is shown. Each state knows what ends it:
// a run outcome goes with the next snapshot that has none, a module frame when the module is left,
// a note or error when something replaces it.

#include <QColor>
#include <QLabel>

namespace fxview {

class Banner : public QLabel {
    Q_OBJECT
public:
    enum class State {
        Hidden,
        Note,        // calm: the inputs used, why this graph
        Error,       // a sentence naming what went wrong and what to do
        RunFailure,  // the run failed, or its output differs from forward
        RunNote,     // the run ended and its output could not be checked (calm)
        ModuleFrame, // inside a stepped-into module
    };

    explicit Banner(QWidget* parent = nullptr);

    // Shows `text` in `state`; an empty text hides the banner.
    void say(const QString& text, State state);
    // Hides it if it is in `state` (what ends that state happened).
    void end(State state);
    State state() const { return state_; }
    // What it shows, or "" when hidden.
    QString shownText() const;
    // Its background for notes and for errors (the window gives the theme's tints), its text.
    void setColors(const QColor& note, const QColor& error, const QColor& text);

private:
    void restyle();

    State state_ = State::Hidden;
    QColor note_ = QColor(0xdd, 0xe8, 0xfb), error_ = QColor(0xf8, 0xd7, 0xd7), text_ = Qt::black;
};

} // namespace fxview
