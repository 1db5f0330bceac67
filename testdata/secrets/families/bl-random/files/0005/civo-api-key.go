civoToken := "vrm66r6ofguizc8mdr3na9g3wrucvy5q5oosz6wk9cn1ekni7o"
