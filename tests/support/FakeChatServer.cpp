#include "FakeChatServer.h"

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <chrono>
#include <netinet/in.h>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

namespace kosmos::test {

FakeChatServer::FakeChatServer()
{
    m_answer = nlohmann::json{{"integrity", "intact"},
                              {"collision", "none_visible"},
                              {"progress", 5},
                              {"completion_evidence", "met"},
                              {"evidence_frame_indices", {15}},
                              {"observable_reasons", "the block is in the square"}}
                   .dump();
    m_listen = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(m_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (::bind(m_listen, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 ||
        ::listen(m_listen, 16) != 0)
        throw std::runtime_error("fake server: cannot listen");
    socklen_t len = sizeof addr;
    ::getsockname(m_listen, reinterpret_cast<sockaddr *>(&addr), &len);
    m_port = ntohs(addr.sin_port);
    m_thread = std::thread([this] { serve(); });
}

FakeChatServer::~FakeChatServer()
{
    m_stop = true;
    ::shutdown(m_listen, SHUT_RDWR);
    ::close(m_listen);
    m_thread.join();
}

void FakeChatServer::setBehaviours(std::vector<Behaviour> behaviours)
{
    std::lock_guard lock(m_mutex);
    m_behaviours.assign(behaviours.begin(), behaviours.end());
}

std::vector<std::string> FakeChatServer::requests()
{
    std::lock_guard lock(m_mutex);
    return m_requests;
}

void FakeChatServer::serve()
{
    while (!m_stop) {
        pollfd p{m_listen, POLLIN, 0};
        if (::poll(&p, 1, 100) <= 0)
            continue;
        const int fd = ::accept(m_listen, nullptr, nullptr);
        if (fd < 0)
            continue;
        handle(fd);
        ::close(fd);
    }
}

void FakeChatServer::handle(int fd)
{
    std::string request;
    char buffer[65536];
    std::size_t headerEnd = std::string::npos;
    std::size_t contentLength = 0;
    while (true) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 5000) <= 0)
            return;
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0)
            return;
        request.append(buffer, static_cast<std::size_t>(n));
        if (headerEnd == std::string::npos) {
            headerEnd = request.find("\r\n\r\n");
            if (headerEnd != std::string::npos) {
                std::string lower = request.substr(0, headerEnd);
                for (auto &c : lower)
                    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                const auto pos = lower.find("content-length:");
                if (pos != std::string::npos)
                    contentLength = std::stoul(lower.substr(pos + 15));
            }
        }
        if (headerEnd != std::string::npos && request.size() >= headerEnd + 4 + contentLength)
            break;
    }
    Behaviour behaviour;
    {
        std::lock_guard lock(m_mutex);
        m_requests.push_back(request);
        behaviour = m_behaviours.front();
        if (m_behaviours.size() > 1)
            m_behaviours.pop_front();
    }
    int n = 1;
    try {
        n = nlohmann::json::parse(request.substr(headerEnd + 4)).value("n", 1);
    } catch (...) {
    }
    auto send = [&](const std::string &status, const std::string &body,
                    std::size_t declaredLength) {
        const std::string head = "HTTP/1.1 " + status +
                                 "\r\nContent-Type: application/json\r\nContent-Length: " +
                                 std::to_string(declaredLength) + "\r\nConnection: close\r\n\r\n";
        ::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
        ::send(fd, body.data(), body.size(), MSG_NOSIGNAL);
    };
    auto completion = [&](int choices, const std::string &content) {
        nlohmann::json body = {{"id", "x"},
                               {"object", "chat.completion"},
                               {"model", "fake/served-model-7b"}, // what the server says answered
                               {"system_fingerprint", "fp_fake_0001"},
                               {"choices", nlohmann::json::array()}};
        for (int i = 0; i < choices; ++i)
            body["choices"].push_back({{"index", i},
                                       {"message", {{"role", "assistant"}, {"content", content}}},
                                       {"finish_reason", "stop"}});
        body["usage"] = {{"prompt_tokens", 1000}, {"completion_tokens", 42 * choices}};
        return body.dump();
    };
    switch (behaviour) {
    case Behaviour::Ok: {
        const auto body = completion(n, m_answer);
        send("200 OK", body, body.size());
        break;
    }
    case Behaviour::Prose: {
        const auto body = completion(n, "The robot seems to have done it.");
        send("200 OK", body, body.size());
        break;
    }
    case Behaviour::FewerChoices: {
        const auto body = completion(std::max(1, n - 3), m_answer);
        send("200 OK", body, body.size());
        break;
    }
    case Behaviour::Status500:
        send("500 Internal Server Error", R"({"error": "CUDA out of memory"})", 32);
        break;
    case Behaviour::Status429:
        send("429 Too Many Requests", R"({"error": "slow down"})", 22);
        break;
    case Behaviour::NotJson:
        send("200 OK", "<html>gateway says hi</html>", 28);
        break;
    case Behaviour::Truncated: {
        const auto body = completion(n, m_answer);
        send("200 OK", body.substr(0, body.size() / 2), body.size()); // promises more than it sends
        break;
    }
    case Behaviour::Huge: {
        const std::string body(12 << 20, 'x');
        send("200 OK", body, body.size());
        break;
    }
    case Behaviour::Slow:
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        break; // then close without answering
    }
}

} // namespace kosmos::test
