curl --oauth2-bearer -gR7NIrNQcXixiU6BwzHxa6InzuvSRLZbbT6XneC https://api.corp.internal/v1/me
http -a ops:YRpUeaQGtAYcF6J GET https://api.corp.internal/v1/health
wget --header="Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzdmMtbGxjc2FyIiwiaWF0IjoxNzE4NDc4MTMwLCJleHAiOjE4OTM0NTYwMDAsInNjb3BlIjoic21va2UifQ.9DMM2LSQpzxLRrZ2weTOu6EuSfYF950wSmZUqzrimPY" https://api.corp.internal/v1/me
