<?php
        \$user = \$_POST[\"username\"];
        \$pwd = \$_POST[\"password\"];
        \$otherdata = \$_POST[\"otherdata\"];
?>
