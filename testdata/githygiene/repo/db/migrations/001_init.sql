CREATE TABLE invoices (id bigint primary key);
INSERT INTO settings VALUES (1);
