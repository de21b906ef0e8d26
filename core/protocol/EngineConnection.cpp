#include "EngineConnection.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace fxview {

int connectLiveEngine(const std::string& spec, std::string& error) {
    if (!spec.empty() && spec.find_first_not_of("0123456789") == std::string::npos) {
        int fd = spec.size() < 8 ? std::stoi(spec) : -1;
        int type = 0;
        socklen_t size = sizeof type;
        if (fd < 3 || ::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) != 0 ||
            type != SOCK_STREAM) {
            error = "--attach " + spec +
                    " is not a connected socket this process inherited "
                    "(fxview.show and fxview.export pass one)";
            return -1;
        }
        return fd;
    }
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (spec.empty() || spec.size() >= sizeof address.sun_path) {
        error = "--attach takes a file descriptor or the path of a Unix socket (at most " +
                std::to_string(sizeof address.sun_path - 1) + " characters)";
        return -1;
    }
    std::memcpy(address.sun_path, spec.data(), spec.size());
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        error = "cannot connect to the live engine at " + spec + " (" + std::strerror(errno) +
                "): its Python process may have ended";
        if (fd >= 0)
            ::close(fd);
        return -1;
    }
    return fd;
}

std::string EngineConnection::greet(EngineHello& hello) {
    Frame frame;
    try {
        if (!readFrame(fd_, frame))
            return "The engine closed the connection before it said hello.";
        if (frame.kind != static_cast<std::uint16_t>(EngineMessage::Hello))
            return "The engine did not say hello first.";
        decode(frame.payload, hello);
    } catch (const WireError& e) {
        return std::string("The engine sent a broken message (") + e.what() + ").";
    }
    return {};
}

std::string EngineConnection::ask(EngineMessage kind, const std::string& payload,
                                  std::vector<Frame>& answers) {
    answers.clear();
    if (!writeFrame(fd_, static_cast<std::uint16_t>(kind), payload))
        return "The engine went away before it was asked.";
    try {
        Frame frame;
        while (readFrame(fd_, frame)) {
            if (frame.kind == static_cast<std::uint16_t>(EngineMessage::Done))
                return {};
            answers.push_back(std::move(frame));
        }
    } catch (const WireError& e) {
        return std::string("The engine sent a broken message (") + e.what() + ").";
    }
    return "The engine went away before it answered.";
}

} // namespace fxview
