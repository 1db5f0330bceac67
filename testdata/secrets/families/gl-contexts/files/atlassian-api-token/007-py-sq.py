atlassianToken = 'JIRA_API_TOKEN=HXe8DGg1iJd2AopzyxkFB7F2'
