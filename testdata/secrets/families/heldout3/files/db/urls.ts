const MONGO_URI = "mongodb://realuser:s3cr3tP4ss@db1.example.net:27017/production";
const MYSQL_JDBC = "jdbc:mysql://admin:str0ngP4ss@db.company.com:3306/app_db";
const POSTGRES_URI = "postgres://api_user:myC0mpl3xPwd@db.internal.com:5432/api_db";
const MONGO_TEMPLATE = "mongodb://username:password@localhost:27017/database";
const MYSQL_TEMPLATE = "mysql://user:${PASSWORD}@example.com:3306/db";
const CONFIG_EXAMPLE = "mongodb://YOUR_USERNAME:YOUR_PASSWORD@cluster.mongodb.net/test";
const DOC_EXAMPLE = "mysql://admin:REPLACE_WITH_PASSWORD@mysql.server.com:3306/database";
