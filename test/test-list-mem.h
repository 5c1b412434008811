/* Tests of the provider: mem (see test-list.h for the macros). */
