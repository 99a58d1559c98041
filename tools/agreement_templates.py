"""Hand-written calls for tools/api_agreement.py: names whose arguments the generator cannot
derive from parameter names (shapes that must match, index tensors, options), and the names
whose generated call is repeated on float64 / float16 / int64 / bool inputs (DTYPE_SWEEP).
Inputs: tools/agreement_cases.py's ENV."""

TEMPLATES = {}

DTYPE_SWEEP = set()

# not called: they block, need a launched job or crash MindSpore's process outside one
SKIP = set()
