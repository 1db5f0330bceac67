var html = '\\n    <script type="text/javascript">'+
'\\n        const gitalk = new Gitalk({'+
'\\n        clientID: \\'2e62dee7b9895e3eede6\\','+
'\\n        clientSecret: \\'ca6819a54657af0d87960af15315319f8a628a53\\','+
'\\n        repo: \\'AiLearning\\','+
'';
