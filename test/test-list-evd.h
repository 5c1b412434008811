/* Tests of the provider: evd (see test-list.h for the macros). */
