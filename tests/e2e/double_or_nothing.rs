//! End to end: double_or_nothing (issue 37). Tests are added by the engineer building it.
