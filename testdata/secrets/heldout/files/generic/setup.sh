PASSWORD=$($(dirname $0)/../bin/get-django-setting LOCAL_DATABASE_PASSWORD)
export PGPASSWORD="$gdcapi_db_password"
- echo 'export DATABASE_PASSWORD="'$PRECOMPILE_PASSWORD'"' >> .env
