/* test-wireshark.c: tools/softdapl.lua, the Wireshark dissector, in tshark */
TEST_ENTRY_TIMEOUT(wireshark_reassembly, 120)
TEST_ENTRY_TIMEOUT(wireshark_decode_as, 120)
TEST_ENTRY_TIMEOUT(wireshark_capture_examples, 180)
TEST_ENTRY_TIMEOUT(wireshark_capture_ud, 180)
