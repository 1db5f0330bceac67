const key = 'test123'; // Not 40 chars
