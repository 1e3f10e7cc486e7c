from langchain_core.messages import AIMessage, HumanMessage

from debategraph.models.oracle import lookup
from debategraph.models.simulated import SimulatedDebater
from debategraph.policies.answers import extract_answer, extract_confidence
from debategraph.policies.tokens import estimate_tokens
from debategraph.prompts import du
from debategraph.prompts.common import SUMMARY_REQUEST, PromptInput

ARITH = "What is the result of 3+4*5+6-7*2?"
JANET = (
    "Janet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes "
    "muffins for her friends every day with four. She sells the remainder at the farmers' market "
    "daily for $2 per fresh duck egg. How much in dollars does she make every day at the farmers' "
    "market?"
)


def ask(model, prompt, history=()):
    msgs = []
    for p, r in history:
        msgs += [HumanMessage(p), AIMessage(r)]
    return model.invoke([*msgs, HumanMessage(prompt)])


def test_oracle_computes_and_looks_up():
    assert lookup(ARITH).answer == "15"  # 3 + 20 + 6 - 14
    assert lookup(JANET).answer == "18"
    assert lookup("Who wrote Hamlet?") is None


def test_deterministic_and_seed_dependent():
    prompt = du.initial(PromptInput(question=ARITH))
    a = [ask(SimulatedDebater(agent="a1", seed=s, skill=0.5), prompt).content for s in range(8)]
    b = [ask(SimulatedDebater(agent="a1", seed=s, skill=0.5), prompt).content for s in range(8)]
    assert a == b
    assert len(set(a)) > 1


def test_skill_sets_initial_accuracy():
    prompt = du.initial(PromptInput(question=ARITH))

    def accuracy(skill):
        right = 0
        for s in range(200):
            reply = ask(SimulatedDebater(agent="a1", seed=s, skill=skill), prompt)
            right += extract_answer(reply.content, "number") == "15"
        return right / 200

    assert accuracy(1.0) == 1.0
    assert accuracy(0.0) == 0.0
    assert 0.35 < accuracy(0.5) < 0.65


def test_replays_real_gsm8k_solution_with_its_wrong_answer():
    model = SimulatedDebater(agent="a1", replay="6b_finetuning")
    reply = ask(model, du.initial(PromptInput(question=JANET)))
    # The bundled 6B fine-tuned solution for this item ends "A: 26" (a real wrong answer).
    assert extract_answer(reply.content, "number") == "26"
    assert "16 - 3 = 13" in reply.content
    assert "<<" not in reply.content


def test_usage_logprobs_and_confidence_format():
    model = SimulatedDebater(agent="a1", skill=1.0)
    reply = ask(model, du.initial(PromptInput(question=ARITH, confidence=True)))
    assert reply.usage_metadata["output_tokens"] == estimate_tokens(reply.text) > 0
    assert reply.usage_metadata["total_tokens"] == (
        reply.usage_metadata["input_tokens"] + reply.usage_metadata["output_tokens"]
    )
    history = [(du.initial(PromptInput(question=ARITH)), "First\n\n  12 + 3 = 15,\tso 15.")]
    later = ask(model, "Check it again.\nQuestion: " + ARITH, history)
    sent = [*history[0], "Check it again.\nQuestion: " + ARITH]
    assert later.usage_metadata["input_tokens"] == sum(map(estimate_tokens, sent))
    assert later.usage_metadata["output_tokens"] == estimate_tokens(later.text)
    assert "logprobs" not in reply.response_metadata  # like OpenAI's API: only when asked
    asked = model.bind(logprobs=True).invoke(
        du.initial(PromptInput(question=ARITH, confidence=True))
    )
    assert asked.content == reply.content
    content = asked.response_metadata["logprobs"]["content"]
    assert content and all(tok["logprob"] <= 0 for tok in content)
    assert 0.0 <= extract_confidence(reply.content) <= 1.0
    always = SimulatedDebater(agent="a1", skill=1.0, logprobs=True)
    assert "logprobs" in ask(always, "Question: What is 2+2?").response_metadata
    never = SimulatedDebater(agent="a1", skill=1.0, logprobs=False)
    assert "logprobs" not in never.bind(logprobs=True).invoke("What is 2+2?").response_metadata


def test_choice_and_text_formats():
    model = SimulatedDebater(agent="a1")
    q = PromptInput(question="Which is a prime?", task="choice", choices=["4", "6", "7", "9"])
    assert extract_answer(ask(model, du.initial(q)).content, "choice", 4) in {"A", "B", "C", "D"}
    t = PromptInput(question="Is the sky green?", task="text")
    assert extract_answer(ask(model, du.initial(t)).content, "text") in {"yes", "no"}


def test_format_error_is_an_abstention():
    model = SimulatedDebater(agent="a1", format_error=1.0)
    reply = ask(model, du.initial(PromptInput(question=ARITH)))
    assert extract_answer(reply.content, "number") is None


def peer(text):
    return {"id": "r0:x", "agent": "x", "kind": "answer", "text": text}


def test_skilled_agent_adopts_right_peer_answer_and_conformist_follows_majority():
    wrong = "I get \\boxed{16}."
    right = "I get \\boxed{15}."
    # Skill 1, wrong own answer, one peer right: fix probability min(1*(0.6+0.4*0.5), .95) = 0.8.
    fixed = 0
    for s in range(100):
        m = SimulatedDebater(agent="a1", seed=s, skill=1.0, stubbornness=0.0)
        history = [(du.initial(PromptInput(question=ARITH)), wrong)]
        prompt = du.debate(PromptInput(question=ARITH, peers=[peer(right), peer(wrong)]))
        fixed += extract_answer(ask(m, prompt, history).content, "number") == "15"
    assert 70 <= fixed <= 95
    # Unskilled, fully conformist agent with a right answer facing a wrong unanimous majority.
    moved = 0
    for s in range(100):
        m = SimulatedDebater(agent="a1", seed=s, skill=0.0, conformity=1.0, stubbornness=0.0)
        history = [(du.initial(PromptInput(question=ARITH)), right)]
        prompt = du.debate(PromptInput(question=ARITH, peers=[peer(wrong), peer(wrong)]))
        moved += extract_answer(ask(m, prompt, history).content, "number") == "16"
    assert moved == 100


def test_summary_mode():
    m = SimulatedDebater(agent="s")
    blocks = [f"Agent {k}:\n```\n\\boxed{{{a}}}\n```" for k, a in enumerate("334", 1)]
    prompt = "\n\n".join([*blocks, f"Question: {ARITH}\n{SUMMARY_REQUEST}"])
    text = ask(m, prompt).content
    assert text.endswith("Answers reached: 3 (Agent 1, Agent 2); 4 (Agent 3)")
    # A reader of that summary counts each listed answer once per agent that reached it.
    reader = SimulatedDebater(agent="r", skill=0.0, conformity=1.0, stubbornness=0.0)
    shown = f"Here is a summary:\n\n```\n{text}\n```\n\nQuestion: {ARITH}\n\n\\boxed{{answer}}"
    assert reader._read([HumanMessage(shown)]).peer_answers == ["3", "3", "4"]
