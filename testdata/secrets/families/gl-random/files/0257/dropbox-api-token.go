dropboxToken := "08pvlgr61223wdc"
