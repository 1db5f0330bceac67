branch.init("key_live_hcnegO5R0SbbpAe1M4rjvgckbFMeQB2N");
