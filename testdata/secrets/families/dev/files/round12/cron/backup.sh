mysqldump -uroot -pZfVRa6Ekfp6.Zv --all-databases > /backup/all.sql
mysql -u root -p orders
MYSQL_PWD=7!dcY3owNd2UsKkQ mysqladmin -u root status
