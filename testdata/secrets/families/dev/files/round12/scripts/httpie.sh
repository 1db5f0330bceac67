https --auth admin:dtohtIjP2LTWykZZ POST https://admin.corp.internal/api/reindex
