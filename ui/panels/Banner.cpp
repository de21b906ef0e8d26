#include "panels/Banner.h"

namespace fxview {

Banner::Banner(QWidget* parent) : QLabel(parent) {
    setWordWrap(true);
    setMargin(8);
    setVisible(false);
    setTextInteractionFlags(Qt::TextSelectableByMouse); // a sentence a person may want to copy
}

void Banner::say(const QString& text, State state) {
    state_ = text.isEmpty() ? State::Hidden : state;
    setText(text);
    restyle();
    setVisible(state_ != State::Hidden);
}

void Banner::end(State state) {
    if (state_ == state)
        say({}, State::Hidden);
}

QString Banner::shownText() const {
    return state_ == State::Hidden ? QString() : text();
}

void Banner::setColors(const QColor& note, const QColor& error, const QColor& text) {
    note_ = note;
    error_ = error;
    text_ = text;
    restyle();
}

void Banner::restyle() {
    const bool error = state_ == State::Error || state_ == State::RunFailure;
    setStyleSheet(
        QString("background:%1; color:%2;").arg((error ? error_ : note_).name(), text_.name()));
}

} // namespace fxview
