#pragma once

#include <atomic>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kosmos::test {

// A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions subset the judge uses
// and misbehaves on request. Each request takes the next behaviour from the queue (the last
// one repeats).
class FakeChatServer
{
public:
    enum class Behaviour
    {
        Ok,
        Status500,
        Status429,
        NotJson,
        Truncated,
        Huge,
        Slow,
        FewerChoices,
        Prose
    };

    FakeChatServer();
    ~FakeChatServer();
    FakeChatServer(const FakeChatServer &) = delete;
    FakeChatServer &operator=(const FakeChatServer &) = delete;

    int port() const { return m_port; }
    std::string baseUrl() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    void setBehaviours(std::vector<Behaviour> behaviours);
    void setAnswer(const std::string &judgmentJson) { m_answer = judgmentJson; }
    std::vector<std::string> requests(); // raw requests (headers + body) received so far

private:
    void serve();
    void handle(int fd);

    int m_listen = -1;
    int m_port = 0;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
    std::mutex m_mutex;
    std::deque<Behaviour> m_behaviours{Behaviour::Ok};
    std::vector<std::string> m_requests;
    std::string m_answer;
};

} // namespace kosmos::test
