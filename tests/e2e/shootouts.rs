//! End to end: shootouts (issue 37). Tests are added by the engineer building it.
