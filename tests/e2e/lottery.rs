//! End to end: lottery (issue 37). Tests are added by the engineer building it.
