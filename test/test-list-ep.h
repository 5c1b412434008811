/* Tests of the provider: ep (see test-list.h for the macros). */
