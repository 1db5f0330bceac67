linearToken := "lin_api_ttyvqvs58v0zb0f7cm8ii8uqnh3ixdpk0zhxf6gj"
