mailgunToken := "pubkey-727a1c5d26689ffe39c62b864dd548df"
