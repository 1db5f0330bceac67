define('MAIL_PASSWORD', 'dvzXQuV!DxNt-7606');
define('MAIL_PASSWORD', getenv('MAIL_PASSWORD'));
