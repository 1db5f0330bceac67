devcycleToken := "dvc_client_b569gvwncb1yjcaygwr23qtx"
