curl -H "Authorization: Bearer SBaVOjqgHoaF4cJO49YM3LyHRF978MhpaTWxN3lb" https://api.corp.internal/v1/me
