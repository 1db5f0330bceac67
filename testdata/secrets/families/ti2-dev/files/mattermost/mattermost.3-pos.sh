curl -X POST https://chat-mattermost.company.io/hooks/tj4xmdnqpfbryx1gwkhge1ca9h
