#pragma once

#include "util/Error.h"

#include <string>
#include <vector>

namespace kosmos {

// A judge prompt template: a versioned resource file (resources/judge/prompt-v<N>.txt) whose
// SHA-256 is part of the judge's identity and is recorded with every judgment. The only
// placeholder is {instruction}.
struct PromptTemplate
{
    std::string id; // "kosmos.judge.prompt/1"
    std::string text;
    std::string sha256;
};

// A prompt that would show the judge what it must not see (an Error(InvalidInput) of its own
// type, so callers tell it apart without reading the message; recorded as prompt_not_blinded).
class PromptNotBlinded : public Error
{
public:
    explicit PromptNotBlinded(const std::string &message) : Error(ErrorCode::InvalidInput, message)
    {
    }
};

const PromptTemplate &defaultPromptTemplate();
// Loads a custom template file; checks it (checkPromptBlinding) before returning it.
PromptTemplate loadPromptTemplate(const std::string &path);

// The judge is blinded: the text sent to it never names the policy, the world model, the
// actions or success rates. Throws PromptNotBlinded listing every leak found: a percentage,
// a known policy or world-model family name, the words "policy", "world model",
// "success rate", or any of `forbiddenNames` (e.g. this run's plugin ids).
void checkPromptBlinding(const std::string &text,
                         const std::vector<std::string> &forbiddenNames = {});

// Fills in the instruction and checks the result.
std::string renderPrompt(const PromptTemplate &prompt, const std::string &instruction,
                         const std::vector<std::string> &forbiddenNames = {});

} // namespace kosmos
