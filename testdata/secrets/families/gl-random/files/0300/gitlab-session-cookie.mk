GITLAB_TOKEN = "_gitlab_session=frpq4amx9pf9h4tvv6lvm02arrqzvz6y"
