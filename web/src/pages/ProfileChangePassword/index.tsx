export default function ProfileChangePassword() {
  return <main className="page">ProfileChangePassword</main>;
}
