"""The tests' name for the QEMU harness, tools/qemu_harness (a package the
tools/ scripts import too). `import qemu` in tests/qemu gives that package
itself, one module with one set of globals."""
import os
import sys

_TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tools")
if _TOOLS not in sys.path:
    sys.path.insert(0, _TOOLS)

import qemu_harness  # noqa: E402

sys.modules[__name__] = qemu_harness
