"""studies.vote_blend: the stack's probabilities blended with its members' keep share."""

import numpy as np
from test_stack import make_page, small

from boilerbench.extractors import members
from studies.vote_blend import blend


def test_blend_weighs_the_stack_and_the_members_share():
    # what would fail: the wrong column read as the share, the weights swapped, or the fitted
    # probabilities lost after a first blend (the next alpha must start from the stack's own)
    stack = small(second_stage=False).fit([make_page(i) for i in range(1, 9)])
    page = make_page(0)
    rows = stack._rows(page, members.vote_matrix(stack.built_members(), page))
    share = rows[:, stack.feature_names().index("members.keep_share")]
    fitted = stack.probabilities(rows, page)
    assert set(share.tolist()) == {0.0, 1.0} and not np.allclose(fitted, share)
    blend(stack, 0.0)
    np.testing.assert_allclose(stack.probabilities(rows, page), share)
    blend(stack, 0.25)
    np.testing.assert_allclose(stack.probabilities(rows, page), 0.25 * fitted + 0.75 * share)
    blend(stack, 1.0)
    np.testing.assert_allclose(stack.probabilities(rows, page), fitted)
