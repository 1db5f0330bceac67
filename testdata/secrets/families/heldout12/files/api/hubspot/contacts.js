const res = await fetch('https://api.hubapi.com/crm/v3/objects/contacts', {
  headers: { authorization: 'Bearer pat-na1-cd81e873-e826-666a-64c7-625130cbd0a9' },
});
