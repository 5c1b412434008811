/* Example programs (test/examples), registered once the provider runs them. */
