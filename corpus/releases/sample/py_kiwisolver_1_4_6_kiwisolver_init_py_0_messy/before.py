# --------------------------------------------------------------------------------------
# Copyright (c) 2013-2022, Nucleic Development Team.
#
# Distributed under the terms of the Modified BSD License.
#
# The full license is in the file LICENSE, distributed with this software.
# --------------------------------------------------------------------------------------
from ._cext import (
    Constraint,
    Expression,
    Solver,
    Term,
    Variable,
    __kiwi_version__,
    __version__,
    strength,
)
from .exceptions import (
    BadRequiredStrength,
    DuplicateConstraint,
    DuplicateEditVariable,
    UnknownConstraint,
    UnknownEditVariable,
    UnsatisfiableConstraint,
)

__all__ = [
    "BadRequiredStrength",
    "DuplicateConstraint",
    "DuplicateEditVariable",
    "UnknownConstraint",
    "UnknownEditVariable",
    "UnsatisfiableConstraint",
    "strength",
    "Variable",
    "Term",
    "Expression",
    "Constraint",
    "Solver",
    "__version__",
    "__kiwi_version__",
]
