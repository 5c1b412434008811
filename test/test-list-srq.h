/* Tests of the provider: srq (see test-list.h for the macros). */
