Server=10.0.0.5;Integrated Security=true;Initial Catalog=AppDB
