# ######## Set your Jira credentials and endpoint ########
JIRA_USER="example@example.com"
JIRA_API_TOKEN="ATATT3xFfGF0xYT7HPCi5lokFfZWNkl0R1xi9BpiieoCRoG3Dn64p6PHPNO-J0-xpcxCZ2GgfV37TfLYSqwT0fQddokHukUVKaxaTqEvQiDM6zbsr2u4ME8Nlp8cTwIvw92CRaD6_U1Awmr3pQFAgIsli5clBlZoRsollYlRztAtrIQ-qDiyUg4=D46B4967"
