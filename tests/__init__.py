"""The test suites, a package so that their support modules import by their full names
(``tests.llamaindex.li_support``); pyproject puts the project root on pytest's path."""
