/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The numeric SOFTDAPL_* variables are all read by sd_env_num (util.c):
 * a whole decimal number within the variable's range, and anything else
 * (a unit, a trailing letter, a sign out of range, an overflow) gives
 * the default, as an unset or empty variable does.
 */
#include <limits.h>
#include <stdlib.h>

#include "../provider/util.h"
#include "test.h"

#define VAR "SOFTDAPL_TEST_NUMBER"

static long num(const char *value)
{
	test_setenv(VAR, value);
	return sd_env_num(VAR, -5, 1000, 42, "a test number");
}

TEST_IMPL(provider_env_numbers)
{
	ASSERT_EQ(num(NULL), 42);		/* unset */
	ASSERT_EQ(num(""), 42);			/* empty */
	ASSERT_EQ(num("7"), 7);
	ASSERT_EQ(num("-5"), -5);		/* the range's ends */
	ASSERT_EQ(num("1000"), 1000);
	ASSERT_EQ(num("-6"), 42);		/* out of range */
	ASSERT_EQ(num("1001"), 42);
	ASSERT_EQ(num("20s"), 42);		/* a unit is not a number */
	ASSERT_EQ(num("3x"), 42);		/* (atoi took it as 3) */
	ASSERT_EQ(num(" 7"), 7);		/* strtol's leading blanks */
	ASSERT_EQ(num("7 "), 42);		/* but nothing after */
	ASSERT_EQ(num("0x10"), 42);		/* decimal only */
	ASSERT_EQ(num("99999999999999999999999"), 42);	/* overflow */
	test_setenv(VAR, NULL);
	return 0;
}
