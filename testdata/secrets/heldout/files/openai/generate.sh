curl https://api.openai.com/v1/images/generations  -H 'Content-Type: application/json'  -H "Authorization: Bearer sk-mxIt5s1tyfCJyIKHwrqOT4BlbkFJT3VVmv6VdSwB7XXIq1TO"
