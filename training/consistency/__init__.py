"""The claim-consistency model's pipeline: `data` (training pairs from the public sources the recipe names),
`train` (the LoRA adapter and head: `python -m training.consistency.train`), `public` (the public sets' fit split
exported as pairs), `corpus` (the generalization corpus's fit split exported as hard pairs, as the local tier
reads each claim) and `combine` (the claim combination fitted on pairs the model did not see:
`python -m training.consistency.combine`), then `answer` (the answer stack, the lexical grounding that scales the
claims' support: `python -m training.consistency.answer`). The artifact lands in `reward/judges/consistency_model/`, with its recipe
and checksums; `reward.judges.consistency` loads and verifies it."""
