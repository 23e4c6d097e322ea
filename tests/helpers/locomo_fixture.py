"""The LoCoMo test fixture (``tests/data/locomo``) and the quirk counts it must give.

Two invented conversations in the per-conversation layout; together they carry every quirk
that :mod:`workloads.data.locomo_data` counts.
"""

import pathlib

FIXTURE = pathlib.Path(__file__).resolve().parents[1] / "data" / "locomo"
QUIRKS_1 = {"split_ids": 2, "repaired_ids": 2, "unresolved_ids": 2, "qa_without_evidence": 1,
            "qa_unresolved": 1, "non_string_answers": 1, "adversarial_answers": 1,
            "dates_without_session": 1, "undated_sessions": 0, "sessions_out_of_order": 0}
QUIRKS_2 = {"split_ids": 0, "repaired_ids": 0, "unresolved_ids": 0, "qa_without_evidence": 0,
            "qa_unresolved": 0, "non_string_answers": 1, "adversarial_answers": 1,
            "dates_without_session": 0, "undated_sessions": 0, "sessions_out_of_order": 0}
